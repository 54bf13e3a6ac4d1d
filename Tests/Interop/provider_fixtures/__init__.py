"""Provider fixtures: one configurable server that reproduces a provider's documented behaviour."""
