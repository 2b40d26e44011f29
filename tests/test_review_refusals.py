"""Sources that translated with exit 0 and computed other numbers than their translations
(found by review of the seventh session's merges), each now a located refusal.

- a divisibility check inside `try`/`with` held after it (the launch covered the ragged tail);
- two sibling modules' helpers of one name were one function in the translation;
- `dtype = x.dtype` then `x = x.to(torch.float32)`: the kernel read the new tensor's dtype.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from translator.api import translate_file
from translator.diagnostics import TranslationError

DATA = Path(__file__).resolve().parent / "data" / "review_refusals"


@pytest.mark.parametrize(
    ("source", "dsl", "line", "words"),
    [
        ("divisible_in_try.py", "triton", 9, "is not masked"),
        ("divisible_in_with.py", "triton", 11, "is not masked"),
        ("pkg/main.py", "triton", 14, "has the name of a helper taken from"),
        ("helion_dtype_then_rebind.py", "helion", 13, "a dtype the host computes"),
    ],
)
def test_refused_at_the_line(source: str, dsl: str, line: int, words: str) -> None:
    target = "triton" if dsl == "helion" else "helion"
    with pytest.raises(TranslationError) as err:
        translate_file(DATA / source, dsl, target)
    assert err.value.loc is not None and err.value.loc.line == line, err.value
    assert words in str(err.value)
