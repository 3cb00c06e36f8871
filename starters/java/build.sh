#!/bin/sh
# Builds the Java starter offline from Debian's packages: protoc + the grpc-java
# plugin generate the classes from bot.proto, javac compiles them with src/, and
# the result is ./bot.jar plus the run-time jars copied into ./lib (so at run time
# the bot needs only the JVM). Writes only in this folder (and javac's $TMPDIR).
set -eu
cd "$(dirname "$0")"

J=/usr/share/java
PLUGIN=/usr/bin/grpc_java_plugin   # from protobuf-compiler-grpc-java-plugin

# Run-time jars (Debian: libgrpc-java, libprotobuf-java, libguava-java,
# libnetty-java, libjctools-java, libperfmark-java).
JARS="grpc-api grpc-context grpc-core grpc-netty grpc-stub grpc-protobuf grpc-protobuf-lite
      protobuf guava perfmark-api jctools-core
      netty-common netty-buffer netty-resolver netty-transport netty-codec
      netty-codec-http netty-codec-http2 netty-handler"

for tool in protoc javac jar "$PLUGIN"; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build.sh: $tool not found" >&2; exit 1; }
done

rm -rf gen classes lib bot.jar
mkdir -p gen classes lib
cp=""
for name in $JARS; do
  [ -f "$J/$name.jar" ] || { echo "build.sh: missing $J/$name.jar" >&2; exit 1; }
  cp -L "$J/$name.jar" "lib/$name.jar"
  cp="$cp${cp:+:}lib/$name.jar"
done

protoc -I. --java_out=gen --plugin=protoc-gen-grpc-java="$PLUGIN" --grpc-java_out=gen bot.proto
# grpc-java 1.41's plugin stamps @javax.annotation.Generated, which JDK 9+ moved.
g=gen/callbreak/v1/BotGrpc.java
sed 's/@javax\.annotation\.Generated(/@javax.annotation.processing.Generated(/' "$g" >"$g.tmp"
mv "$g.tmp" "$g"
# jsr305 only satisfies annotations at compile time; it is not needed to run.
javac -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -J-XX:-UsePerfData -nowarn --release 17 -encoding UTF-8 \
  -cp "$cp:$J/jsr305.jar" -d classes $(find gen src -name '*.java' | sort)
jar --create --file bot.jar -C classes .
rm -rf gen classes
echo "build.sh: wrote bot.jar and lib/ ($(du -sh lib | cut -f1))" >&2
