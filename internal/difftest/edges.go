package difftest

import "strings"

// Edges are hand-written JSON events, valid and not, that the golden
// frames, the conformance streams and filled events may miss.
var Edges = edges()

func edges() []string {
	out := []string{
		// Each condition of the compiled layout at least once: empty lists,
		// a required list empty, optional values null, a message of every
		// shape, every outcome, a data source, a run input.
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":[]},"usage":[]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":null,"rawEvent":null}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":{}}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[]},{"id":"2","role":"activity","activityType":"x","content":{}},{"id":"3","role":"developer","content":""},{"id":"4","role":"assistant","toolCalls":[]}]}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":[]}}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"image","source":{"type":"data","value":"","mimeType":""}}]}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[]}}`,

		// Metadata: empty, null (refused), not an object (refused), deep,
		// empty and repeated keys, escapes, a lone surrogate, on every
		// carrier (the event, a message, a tool, a tool call, a part, a
		// resume entry).
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":null}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":[]}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":"x"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":1}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"":{"":null},"a":[{}],"b":{"c":{"d":{"e":[1,2,{"f":"g"}]}}}}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"a":1,"a":2}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"\u00e9":"\ud83d\ude00","k\"q":"\\","\u0000":"\/"}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"a":"\ud800"}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"a":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"a":1},"metadata":{"b":2}}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"x","metadata":{}}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"x","metadata":null}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"metadata":{"k":[]}}]}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"metadata":null}]}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[{"type":"text","text":"t","metadata":{"pages":3}},{"type":"text","text":"u","metadata":null},{"type":"text","text":"v","metadata":[1,"x"]}]}]}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[{"name":"f","description":"d","metadata":{}}],"resume":[{"interruptId":"i","status":"resolved","metadata":{"a":{}}}]}}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[{"name":"f","description":"d","metadata":null}]}}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"cancelled","metadata":null}]}}`,
	}
	// Numbers at the edges of a double, in a dynamic value: zeros, the
	// smallest subnormal and normal, the largest finite, beyond it, the
	// integers around 2^53, and spellings (exponents, fractions, long).
	for _, n := range []string{
		"0", "-0", "0.0", "-0.0", "0e0", "1.0", "1E+2", "1e-7", "0.1", "0.30000000000000004",
		"5e-324", "-5e-324", "4.9e-324", "2e-324", "3e-324", "1e-400", "-1e-400",
		"2.2250738585072014e-308", "2.225073858507201e-308",
		"1.7976931348623157e308", "-1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
		"1e308", "1e309", "-1e309", "1e400",
		"9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740993", "9007199254740992.0",
		"18446744073709551616", "123456789012345678901234567890", "100000000000000000000000",
		"1e23", "8.98846567431158e307",
	} {
		out = append(out,
			`{"type":"CUSTOM","name":"n","value":`+n+`}`,
			`{"type":"STATE_SNAPSHOT","snapshot":{"n":[`+n+`]}}`,
		)
	}
	// Integers at the edges of an int64 and of a double's integers, in an
	// int64 field (the timestamp, a token count), and non-integers.
	for _, n := range []string{
		"0", "-0", "1", "-1", "9007199254740991", "-9007199254740991", "9007199254740992", "9007199254740993",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"1.5", "1e3", "1E2", "1.733140800123e12", "1e19", "0.0", "1e400", "-1e-400",
	} {
		out = append(out,
			`{"type":"STEP_STARTED","stepName":"s","timestamp":`+n+`}`,
			`{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":`+n+`,"totalTokens":2}]}`,
		)
	}
	// Optional members absent, present and null on one event of each
	// shape of optional (string, bool, value, object, list).
	for _, m := range []string{`"role":"assistant"`, `"role":null`, `"name":""`, `"name":null`} {
		out = append(out, `{"type":"TEXT_MESSAGE_START","messageId":"m",`+m+`}`)
	}
	for _, m := range []string{`"replace":true`, `"replace":false`, `"replace":null`} {
		out = append(out, `{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":{},`+m+`}`)
	}
	for _, m := range []string{`"result":{}`, `"result":null`, `"usage":[]`, `"usage":null`, `"usage":[{}]`} {
		out = append(out, `{"type":"RUN_FINISHED","threadId":"t","runId":"r",`+m+`}`)
	}
	// Long strings and escapes.
	out = append(out,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"`+strings.Repeat("x", 70000)+`"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\u0000\u001f\"\\\/\b\f\n\r\t\u2028\u2029"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d"}`,
	)
	return out
}
