"""x"""
from typing import Any


def add_parser(subparsers: Any) -> None:
    return None
