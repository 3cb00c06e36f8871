#!/bin/sh
# Build ./bot, a static Go binary, offline, from Debian's Go packages:
#   golang-go (Go 1.19), golang-google-grpc-dev (grpc-go 1.33),
#   golang-goprotobuf-dev (golang/protobuf 1.3) and their dependencies
#   (golang.org/x/net, x/sys, x/text, genproto), all sources under /usr/share/gocode.
# GOPATH mode: no go.mod, no module downloads. Writes only ./bot and the build cache in $TMPDIR.
set -eu
cd "$(dirname "$0")"

GOPATH=${CALLBREAK_GOPATH:-/usr/share/gocode}
GO111MODULE=off
GOFLAGS=
GOPROXY=off
GOCACHE=${TMPDIR:-/tmp}/callbreak-go-cache
CGO_ENABLED=0
GOMAXPROCS=${GOMAXPROCS:-2}
export GOPATH GO111MODULE GOFLAGS GOPROXY GOCACHE CGO_ENABLED GOMAXPROCS

if [ ! -d "$GOPATH/src/google.golang.org/grpc" ]; then
  echo "build.sh: grpc-go sources not found in $GOPATH/src (apt install golang-google-grpc-dev)" >&2
  exit 1
fi

go build -p 2 -trimpath -buildvcs=false -ldflags='-s -w' -o bot .
echo "build.sh: built ./bot" >&2
