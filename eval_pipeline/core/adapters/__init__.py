"""Transports to the chatbot under test; each turns one question into a ``ChatPayload``."""
