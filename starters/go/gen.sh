#!/bin/sh
# Regenerate bot.pb.go from bot.proto. Only needed after editing bot.proto; the
# generated file is committed, so build.sh needs nothing but `go`.
# Needs protoc and Debian's protoc-gen-go 1.3.x (package golang-goprotobuf-dev /
# protoc-gen-go-1-3), which emits messages and the gRPC service in one file that
# compiles against Debian's grpc-go 1.33 and golang/protobuf 1.3.
set -eu
cd "$(dirname "$0")"
protoc --go_out=plugins=grpc,paths=source_relative:. bot.proto
