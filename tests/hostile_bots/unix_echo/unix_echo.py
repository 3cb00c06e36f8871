"""A well-behaved bot: listen on the Unix socket given as argv[1] ("unix:/path"),
send b"hello from the sandbox" to the first client, exit."""

import socket
import sys

address = sys.argv[1]
assert address.startswith("unix:"), address
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
    server.bind(address[len("unix:") :])
    server.listen(1)
    print("listening", flush=True)
    conn, _ = server.accept()
    with conn:
        conn.sendall(b"hello from the sandbox")
