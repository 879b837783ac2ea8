"""Traces of an evaluation: one per case per run, recorded by the steps through a small interface
(``spans``) that records nothing unless a tracer is installed (``otel``, OpenTelemetry over OTLP).
"""
