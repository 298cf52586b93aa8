"""Builds the C extensions (the oracle's search, the observation encoder); all other metadata lives in
pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "machiavelli_env.oracle._dp",
            sources=["machiavelli_env/oracle/_dp.c"],
            extra_compile_args=["-O2", "-std=c99"],
        ),
        Extension(
            "machiavelli_env._obs",
            sources=["machiavelli_env/_obs.c"],
            extra_compile_args=["-O2", "-std=c99"],
        ),
    ]
)
