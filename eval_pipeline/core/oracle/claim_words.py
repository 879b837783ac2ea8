"""The words around a claim's number that say what it is of: the noun it counts, and the
joints by which it restates, or is a part of, another figure."""

from __future__ import annotations

import re

from eval_pipeline.core.claims.layout import search_before
from eval_pipeline.core.models import Claim
from eval_pipeline.core.oracle.facts import tokens

_NOUN_AFTER = re.compile(r"[^\S\n]+([A-Za-z][\w-]*)")
"""The word after a count on its line ("42 referrals"); the next line names nothing it counts."""
_GRAIN_AFTER = re.compile(r"[^\S\n]+(?i:daily|weekly|monthly|quarterly|yearly|annual)\b")
"""A grain word after a count says how often, not what it counts ("2,310 monthly users")."""
_PLURAL_PHRASE = re.compile(r"(?:[^\S\n]+[a-z][\w-]*)??[^\S\n]+([a-z][\w-]*s)\b")
"""The words after a grain word up to their plural head ("… monthly active users"): the head
is what the count counts, not its modifier."""
_ENDS_AFTER = re.compile(r"\s*(?:[.;)]|$)")
_PLURAL_BEFORE = re.compile(r"([A-Za-z][\w-]*s),\s*$")
NOT_NOUNS = frozenset(
    (
        *("in", "of", "and", "at", "per", "vs", "more", "less", "this", "that", "on", "for"),
        *("to", "from", "with", "by", "than", "was", "were", "is", "are", "a", "an", "the"),
        *("total", "overall", "each", "average", "all", "so", "or", "but", "across", "over"),
        *("up", "down", "as", "compared", "against", "versus", "year", "far", "apiece"),
        *("between", "among", "within", "during", "after", "before", "since", "until", "into"),
        *("while", "whereas", "which", "who", "then", "there", "here", "again", "also"),
        *("respectively", "last", "next", "these", "those"),
    )
)
OF_ANOTHER = re.compile(
    r"\s+(?i:of)\s+(?:(?:[A-Z0-9][\w&.-]*\s+){0,4}?[A-Z0-9][\w&-]*['’](?:s\b)?|(?i:those|these|them|which|that)\b)"
)
RESTATED = re.compile(
    r"(?:(?!\b(?i:and|but|while|whereas|than)\b)[^.;\n]){0,60}?(?P<joint>[,:(]|\s[—–-])\s*"
    r"(?P<word>(?i:or\s+|i\.e\.,?\s+|that\s+is,?\s+|so\s+|which\s+is\s+))?"
)
"""Between a figure and the share restating it: its words, then ", or", ":", "(", " — "."""
RESTATED_NEXT = re.compile(
    r"\s*(?:That|This)(?:['’]s|\s+is|\s+was|\s+works\s+out\s+to|\s+comes\s+to)\s+"
    r"(?P<joint>)(?P<word>)"
)
"""A sentence opening on a share that restates the figures of the sentence before ("Of the
1,349 tickets, 956 closed within a day. That's 74%")."""
_APPOSED_WORD = re.compile(r"(?i:or|i\.e\.,?|that\s+is,?|which\s+is)\s+")
OWN_WORDS_END = re.compile(r"[,;:.()\n]|\s[—–-]\s|\b(?i:and|but|while|whereas|or)\b")
"""Where the words a share says of itself end ("1 in 7 was broker-sourced, …"): at a clause
break or a joint that opens another clause."""


def apposed(restated: re.Match[str]) -> bool:
    """Does a ``RESTATED`` joint set the share beside the figure before it as that figure's own
    ("339 online (46%)", "339, or 46%"), not after it as a conclusion ("… 69 by phone — so 1 in
    7 …"), which may be of any figure the list stated?"""
    return restated["joint"] == "(" or bool(
        restated["word"] and _APPOSED_WORD.fullmatch(restated["word"])
    )


OF_WHOLE = re.compile(r"\s*(?:[\w-]+\s+){0,2}?(?i:of|out\s+of)\s+(?:[\w'’&.-]+\s+){0,4}?")
"""Between a part and its whole: "490 of Riverside Clinic's 1,565", "93 late out of 400"."""
OF_AFTER = re.compile(r"\s+(?i:of|out\s+of)\s+(?:[\w'’&.-]+\s+){0,3}?")
"""Between a share and the whole after it: "42% of the hotel's $2.32M"."""
THAN = re.compile(r"(?:\s+[a-z][\w-]*){0,2}?\s+(?i:than)\s+")
"""From a comparison's number to the words of what it is compared with: "40 more than …"."""
OF_START = re.compile(r"\s*(?i:of|out\s+of)\s+(?:the\s+|all\s+|our\s+)?")
"""A sentence opening on its whole: "Of the 802 claims opened in 2025, …"."""
OF_PHRASE = re.compile(r"\s+(?i:of)\s+[^,;:.!?()]+")
"""A share's whole, after its "of": "41% of personal-auto indemnity"."""


def head_noun(answer: str, claim: Claim) -> str | None:
    """The word a count names ("42 referrals" → referral; "the most test drives, 362" → drive),
    which must be what the fact counts before a wrong count can be held against it."""
    if claim.unit != "count":
        return None
    after = _GRAIN_AFTER.match(answer, claim.span[1])
    m = _NOUN_AFTER.match(answer, after.end() if after else claim.span[1])
    phrase = _PLURAL_PHRASE.match(answer, after.end()) if after else None
    if phrase is not None and not NOT_NOUNS & set(phrase.group(0).split()):
        m = phrase  # "2,310 monthly active users": the plural its modifiers lead to
    if m is None and _ENDS_AFTER.match(answer, claim.span[1]):
        m = search_before(_PLURAL_BEFORE, answer, claim.span[0], 60)
    if m is None or m.group(1).lower() in NOT_NOUNS:
        return None
    found = tokens(m.group(1).replace("-", " "))
    return next(iter(sorted(found)), None) if len(found) == 1 else None
