"""``python -m machiavelli_env``: the ``machiavelli`` command line."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
