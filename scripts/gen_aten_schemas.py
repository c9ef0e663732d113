"""Writes python/tandem/_library/aten_schemas.txt: PyTorch's schemas of the ATen ops tandem implements.

Run from the repository root with the development virtualenv (PyTorch is a development requirement only):
    PYTHONPATH=python .venv/bin/python scripts/gen_aten_schemas.py
Rerun it after adding ops or moving to another PyTorch; tandem itself never imports torch. Kept: every overload
that takes or returns a Tensor of each ATen op that tandem._library.aten.implementation() finds, and that
tandem's schema parser reads (TorchScript's scalar, list and string overloads, e.g. add.int, are left out)."""
import os
import re
import sys

import torch

import tandem
from tandem._library import aten
from tandem._library import schema as tandem_schema

OUTPUT = os.path.join(os.path.dirname(aten.__file__), "aten_schemas.txt")


def simplified(text):
    """The schema with its alias sets reduced to what tandem's parser reads: "Tensor(a -> *)" (a list whose
    elements alias self) as "Tensor(a)", "Tensor(b|a)" as "Tensor(b)"."""
    text = re.sub(r"\((\w+) -> \*\)", r"(\1)", text)
    return re.sub(r"\((\w+)(?:\|\w+)+\)", r"(\1)", text)


def kept_schemas():
    by_name = {}
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::"):
            continue
        text = simplified(str(s)[len("aten::"):])
        if "Tensor" not in text:
            continue
        try:
            tandem_schema.parse_schema(text)
        except RuntimeError:
            continue  # a type tandem's parser does not know (Dict(...), Storage, ...): not callable from tandem
        by_name.setdefault(s.name[len("aten::"):], []).append(text)
    return {name: texts for name, texts in sorted(by_name.items()) if aten.implementation(name) is not None}


def main():
    kept = kept_schemas()
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(f"# ATen schemas from PyTorch {torch.__version__} (scripts/gen_aten_schemas.py); "
                f"{len(kept)} ops tandem {tandem.__version__} implements\n")
        for texts in kept.values():
            f.writelines(t + "\n" for t in texts)
    print(f"{OUTPUT}: {len(kept)} ops, {sum(map(len, kept.values()))} overloads", file=sys.stderr)


if __name__ == "__main__":
    main()
