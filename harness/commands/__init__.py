"""One module per verb of the constrain-harness command (see harness.cli)."""
