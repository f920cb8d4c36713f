"""A Twilio auth token passed to the SDK's client (``Client("AC…", "token")``) is a secret.

No rule knew the form: the Account SID and the token as two quoted arguments have no label
(``token=``) and no ``SID:token`` pair, so the token survived redaction and with it every stage
after (the scan, ``lessons add``, the export). The form is in the corpus of ``test_secrets`` as
``twilio-client``, which pushes it through those stages; here, the rule itself.
"""

from __future__ import annotations

import pytest

from lessons_core import privacy

SID = "AC" + "0a1b2c3d4e5f" * 2 + "0a1b2c3d"
TOKEN = "f" + "9e8d7c6b5a40" * 2 + "9e8d7c6"


@pytest.mark.parametrize(
    "line",
    [
        f'client = Client("{SID}", "{TOKEN}")',
        f"client = Client('{SID}','{TOKEN}')",
        f"const client = require('twilio')('{SID}', '{TOKEN}');",
        f'Client(username="{SID}", password="{TOKEN}")',
        f'$twilio = new Client("{SID}",\n    "{TOKEN}");',
    ],
)
def test_the_token_beside_its_account_sid_is_redacted(line: str) -> None:
    assert len(TOKEN) == 32
    out = privacy.redact(line)
    assert TOKEN[:8] not in out
    assert "[REDACTED:" in out
    assert SID in out  # the Account SID is an identifier, not a secret


def test_two_ordinary_arguments_are_left_alone() -> None:
    """Only a token after an Account SID: other quoted pairs are ordinary text."""
    line = 'compare("0a1b2c3d4e5f0a1b2c3d4e5f0a1b2c3d", "f9e8d7c6b5a40f9e8d7c6b5a40f9e8d")'
    assert privacy.redact(line) == line
