package codec

//go:generate go run ../internal/codecgen -o coders_gen.go -json ../event/json_gen.go -names ../internal/schema/names_gen.go -js ../clients/js/decode.gen.js
