module github.com/agwire/agwire/bench

go 1.26

require (
	github.com/agwire/agwire v0.0.0
	github.com/klauspost/compress v1.20.4
	github.com/planetscale/vtprotobuf v0.6.0
	google.golang.org/protobuf v1.36.12
)

replace github.com/agwire/agwire => ../

tool (
	github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto
	google.golang.org/protobuf/cmd/protoc-gen-go
)
