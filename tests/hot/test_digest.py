"""The builtin hash modules give exactly hashlib's digests, without loading OpenSSL."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from lessons_core.hot import digest


@pytest.mark.parametrize(
    "data", [b"", b"abc", "pytest ist h\u00e4ngen geblieben".encode(), bytes(range(256)) * 9]
)
def test_digests_equal_hashlibs(data):
    assert digest.hex_sha256(data) == hashlib.sha256(data).hexdigest()
    assert digest.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert digest.hex_blake2b(data, 8) == hashlib.blake2b(data, digest_size=8).hexdigest()


def test_importing_it_loads_no_openssl():
    code = "import sys, lessons_core.hot.digest; print('_hashlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
