from shortuuid.main import decode
from shortuuid.main import encode
from shortuuid.main import get_alphabet
from shortuuid.main import random
from shortuuid.main import set_alphabet
from shortuuid.main import ShortUUID
from shortuuid.main import uuid

__version__ = "1.0.11"
__all__ = [
    "decode",
    "encode",
    "get_alphabet",
    "random",
    "set_alphabet",
    "ShortUUID",
    "uuid",
]
