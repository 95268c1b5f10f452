module github.com/agwire/agwire/bench

go 1.26

require github.com/agwire/agwire v0.0.0

require google.golang.org/protobuf v1.36.12 // indirect

replace github.com/agwire/agwire => ../
