"""The demo bot's chat web page (``page.html``): one self-contained file, no outside asset."""

from __future__ import annotations

from importlib import resources

CHAT_PAGE = resources.files("eval_pipeline.demo.bot").joinpath("page.html").read_text("utf-8")
