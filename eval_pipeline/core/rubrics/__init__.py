"""User-defined rubrics: a file of dimensions a judge (or a deterministic check) scores per case."""
