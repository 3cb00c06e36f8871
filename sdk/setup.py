"""The SDK's wheel leaves out the modules of its packages that need the platform (see
pyproject.toml beside this file): the referee's end of the gRPC stream."""

from setuptools import setup
from setuptools.command.build_py import build_py

PLATFORM_ONLY = {
    ("arena.players", "grpc_player"),  # the referee's end; needs arena.text
}


class SdkBuildPy(build_py):
    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        found = super().find_package_modules(package, package_dir)
        return [m for m in found if (m[0], m[1]) not in PLATFORM_ONLY]


setup(cmdclass={"build_py": SdkBuildPy})
