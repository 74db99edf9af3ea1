"""Content words, as the paraphrase suite counts them (tests/fixtures/paraphrase/README.md).

A text's words are its runs of letters and digits, lowercased; an identifier also gives its
camelCase parts (`zoneId` gives `zoneid`, `zone`, `id`) and its `_`/`.`/`-` pieces are words
of their own already. Stop words (English function words, and the boilerplate rules are
written with: always, never, use, instead, ...) are dropped, and each word is reduced by the
Porter stemmer, so "exports", "exporting" and "export" are one word. Splitting identifiers and
stemming make the one-shared-word limit stricter, never looser.
"""
import re

from porter import stem

STOP_WORDS = frozenset("""
a about above after again against all also am an and any are aren as at be because been before
being below between both but by can cannot could couldn d did didn do does doesn doing don down
during each either else even ever every few for from further get gets getting got had hadn has
hasn have haven having he her here hers herself him himself his how i if in into is isn it its
itself just ll m may me might more most must mustn my myself needn no nor not now o of off on once
only or other our ours ourselves out over own re s same shall shan she should shouldn so some
such t than that the their theirs them themselves then there these they this those through to too
under until up upon us ve very was wasn we were weren what when where which while who whom why
will with won would wouldn y you your yours yourself yourselves
always never use uses used using instead please thanks ok okay yes also still
""".split())

_RUN = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def tokens(text):
    """Every lowercase word of the text in order (stop words included), camelCase parts after
    their whole identifier."""
    out = []
    for run in _RUN.findall(text):
        out.append(run.lower())
        parts = _CAMEL.findall(run)
        if len(parts) > 1:
            out += [p.lower() for p in parts]
    return out


def plain_tokens(text):
    """The lowercase runs of the text, in order, without camelCase parts (for phrase checks)."""
    return [r.lower() for r in _RUN.findall(text)]


def content_stems(text):
    """The set of stemmed content words of the text."""
    return {stem(t) for t in tokens(text) if t not in STOP_WORDS}


def shared_content(a, b):
    """The stemmed content words two texts share, sorted."""
    return sorted(content_stems(a) & content_stems(b))


def copied_phrase(task, source, n=6):
    """The first run of n consecutive words of `task` that also appears, word for word, in
    `source` (stop words included), or None."""
    words = plain_tokens(task)
    if len(words) < n:
        return None
    grams = set()
    src = plain_tokens(source)
    for i in range(len(src) - n + 1):
        grams.add(tuple(src[i:i + n]))
    for i in range(len(words) - n + 1):
        if tuple(words[i:i + n]) in grams:
            return " ".join(words[i:i + n])
    return None
