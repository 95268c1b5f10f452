module github.com/agwire/agwire

go 1.26

require (
	github.com/klauspost/compress v1.20.4
	google.golang.org/protobuf v1.36.12
)
