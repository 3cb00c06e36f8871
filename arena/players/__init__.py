"""How the referee talks to a seat: the ``Player`` interface and its adapters
(in-process, gRPC, Bhoos HTTP)."""
