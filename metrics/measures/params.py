"""Parameter kinds of measure families: how ``P.5,10`` or ``ndcg.1=3,2=9`` is read, and how names are written."""

from __future__ import annotations

import re

MAX_CUTOFF = 2**31 - 1  # rank cutoffs are C ints in trec_eval


def _atol(text: str) -> int:
    m = re.match(r"\s*[+-]?\d+", text)
    return int(m.group(0)) if m else 0


def _atof(text: str) -> float:
    m = re.match(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", text, re.I)
    return float(m.group(0)) if m else 0.0


_PAIR_NAME = r"[A-Za-z0-9_.+-]+"  # compiled when first used (re's cache)
_NUMBER = r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)"  # compiled when first used (re's cache)


def _fmt_num(v: float) -> str:
    return repr(int(v)) if float(v).is_integer() and abs(v) < 1e15 else repr(float(v))


class NoParams:
    """The family takes no parameters."""

    expands = False
    default: tuple = ()

    def parse(self, text: str) -> tuple:
        raise ValueError("takes no parameters")

    def suffix(self, params: tuple) -> str:
        return ""

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        return ""


class LongCutoffs:
    """Integer rank cutoffs, like trec_eval's ``P.5,10``: sorted, positive, unique.

    One measure per cutoff, named ``<family>_<cutoff>``.
    """

    expands = True

    def __init__(self, *default: int):
        self.default = tuple(default)

    def parse(self, text: str) -> tuple:
        tokens = text.split(",")
        # trec_eval reads each with atol ("23.4" is 23); a token without leading digits is no cutoff
        if not all(re.match(r"\s*[+-]?\d", t) for t in tokens):
            raise ValueError(f"cutoffs must be positive whole numbers, not {text!r}")
        values = sorted(_atol(t) for t in tokens)
        if values[0] <= 0:
            raise ValueError("cutoffs must be positive")
        if values[-1] > MAX_CUTOFF:
            raise ValueError(f"cutoff {values[-1]} is too large (at most {MAX_CUTOFF})")
        if len(set(values)) != len(values):
            raise ValueError("duplicate cutoffs")
        return tuple(values)

    def suffix(self, params: tuple) -> str:
        return f"_{params[0]}"

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        return f"_{params[0]}"

    def from_suffix(self, text: str) -> tuple:
        if not re.fullmatch(r"\d+", text):
            raise ValueError(text)
        return self.parse(text)


class DoubleCutoffs:
    """Fractional cutoffs (``iprec_at_recall.0,.5``): sorted, unique.

    One measure per cutoff, named ``<family>_<cutoff %3.2f>`` like trec_eval
    (more digits in the canonical name when two decimals do not round-trip).
    """

    expands = True

    def __init__(self, *default: float):
        self.default = tuple(float(d) for d in default)

    def parse(self, text: str) -> tuple:
        values = sorted(_atof(t) for t in text.split(","))
        if len(set(values)) != len(values):
            raise ValueError("duplicate cutoffs")
        return tuple(values)

    def suffix(self, params: tuple) -> str:
        v = params[0]
        two = f"{v:3.2f}"
        return "_" + (two if float(two) == v else repr(float(v)))

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        return f"_{params[0]:3.2f}"

    def from_suffix(self, text: str) -> tuple:
        float(text)
        return self.parse(text)


class _OneMeasureParams:
    """Parameters that make one measure: trec_eval prints them as given."""

    expands = False

    def parse(self, text: str) -> tuple:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def suffix(self, params: tuple) -> str:  # pragma: no cover
        raise NotImplementedError

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        if text is not None:
            return "_" + text
        return self.suffix(params)

    def from_suffix(self, text: str) -> tuple:
        return self.parse(text)


class DoubleParams(_OneMeasureParams):
    """A list of numbers making one measure (``utility.1,-1,0,0``); ``count``: how many it needs."""

    def __init__(self, *default: float, count: int | None = None, what: str = "parameters"):
        self.default = tuple(float(d) for d in default)
        self.count, self.what = count, what

    def parse(self, text: str) -> tuple:
        values = tuple(_atof(t) for t in text.split(","))
        if self.count is not None and len(values) != self.count:
            raise ValueError(f"improper number of {self.what} (need {self.count}, got {len(values)})")
        return values

    def suffix(self, params: tuple) -> str:
        if params == self.default:
            return ""
        return "_" + ",".join(_fmt_num(v) for v in params)


class ParamPairs(_OneMeasureParams):
    """``name=value`` pairs making one measure (``ndcg.1=3,2=9``, ``rbp.p=0.8``)."""

    default: tuple = ()

    def parse(self, text: str) -> tuple:
        pairs = []
        for item in text.split(","):
            if "=" not in item or item.startswith("=") or item.count("=") != 1:
                raise ValueError(f"malformed pair parameters in '{text}'")
            name, value = item.split("=")
            pairs.append((name, _atof(value)))
        return tuple(pairs)

    def suffix(self, params: tuple) -> str:
        if not params:
            return ""
        return "_" + ",".join(f"{k}={_fmt_num(v)}" for k, v in params)

    def from_suffix(self, text: str) -> tuple:
        """The pairs of an output name's suffix (``ndcg_1=3,2=9``), as :meth:`suffix` writes them: each name
        a word or a number and each value a whole number written out (``-m``'s own syntax reads values as C's
        ``atof`` does, trec_eval's rule; a name is not guessed that way: ``dcg_cut(gain=exp)_10`` is no
        ``dcg`` with a pair ``cut(gain=0``)."""
        for item in text.split(","):
            name, _, value = item.partition("=")
            if not re.fullmatch(_PAIR_NAME, name) or not re.fullmatch(_NUMBER, value.strip(), re.I):
                raise ValueError(f"malformed pair parameters in '{text}'")
        return self.parse(text)
