"""Hypothesis strategies: patterns, strings, schemas, documents, vocabularies."""
