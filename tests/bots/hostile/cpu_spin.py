"""Spin the CPU forever."""

while True:
    pass
