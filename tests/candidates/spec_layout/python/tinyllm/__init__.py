"""The course's package (a regular package: its infer/ and tokenizer/ folders are namespace packages)."""
