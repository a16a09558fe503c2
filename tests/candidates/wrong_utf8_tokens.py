"""Wrong (spec pitfall 12, mutant s26): token strings encoded as UTF-8 without undoing the
GPT-2 byte map ('Ġ' becomes two bytes, not a space). Must fail: test_vocab_bytes."""

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import vocab_bytes as _reference_vocab_bytes


def vocab_bytes(tok, special_ids=None):
    if isinstance(tok, (list, tuple)):
        tokens, specials = list(tok), set(special_ids or ())
    elif hasattr(tok, "all_special_ids") and hasattr(tok, "convert_ids_to_tokens"):  # a tokenizer object
        tokens, specials = tok.convert_ids_to_tokens(list(range(len(tok)))), set(tok.all_special_ids)
    else:
        return _reference_vocab_bytes(tok, special_ids)
    return [None if i in specials else t.encode("utf-8") for i, t in enumerate(tokens)]
