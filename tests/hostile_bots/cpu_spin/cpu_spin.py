"""Spin the CPU forever (run alone by the sandbox tests; the bot beside it, bot.py, spins
on its first card request)."""


def spin() -> None:
    while True:
        pass


if __name__ == "__main__":
    spin()
