"""The machinery behind tandem.library and tandem.ops: schemas, the operator registry, custom ops, opcheck."""
