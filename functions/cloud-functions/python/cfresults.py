"""The platform module cloud functions import to report an overall outcome.

    from cfresults import Outcome, Result, OverallResult, OverallResultEncoder
    overall = OverallResult(Outcome.APPROVE, {"phone": Result(Outcome.PASSED, {"score": 0.9})})
    results["cfResults"] = json.loads(OverallResultEncoder().encode(overall))

The family documents only that usage; the field names below are this service's own. An Outcome's
value is the lower-case word the metrics accept (approve, decline, review, na, failed, passed,
not_found), so `results["metrics"]["counters"][name] = Outcome.APPROVE.value` works too.
"""
import enum
import json

__all__ = ["Outcome", "Result", "OverallResult", "OverallResultEncoder"]


class Outcome(str, enum.Enum):
    APPROVE = "approve"
    DECLINE = "decline"
    REVIEW = "review"
    NA = "na"
    FAILED = "failed"
    PASSED = "passed"
    NOT_FOUND = "not_found"

    def __str__(self):
        return self.name


def _outcome(value):
    """An Outcome from an Outcome, its name or its value (any case)."""
    if isinstance(value, Outcome):
        return value
    if isinstance(value, str):
        text = value.strip()
        for outcome in Outcome:
            if text.upper() == outcome.name or text.lower() == outcome.value:
                return outcome
    raise ValueError("not an outcome: %r (use one of %s)" % (value, ", ".join(o.name for o in Outcome)))


class Result:
    """The outcome of one check of the function, with optional details (any JSON-able dict)."""

    def __init__(self, outcome, details=None, reason=None):
        self.outcome = _outcome(outcome)
        self.details = {} if details is None else details
        self.reason = reason

    def to_dict(self):
        out = {"outcome": self.outcome.name, "details": self.details}
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def __repr__(self):
        return "Result(%s, %r)" % (self.outcome.name, self.details)


class OverallResult:
    """The function's overall outcome and its results by name (a dict of Result or plain values)."""

    def __init__(self, outcome, results=None, reason=None):
        self.outcome = _outcome(outcome)
        self.results = {} if results is None else results
        self.reason = reason

    def add(self, name, result):
        self.results[name] = result
        return self

    def to_dict(self):
        out = {"outcome": self.outcome.name, "results": self.results}
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def __repr__(self):
        return "OverallResult(%s, %r)" % (self.outcome.name, self.results)


class OverallResultEncoder(json.JSONEncoder):
    """json.JSONEncoder that also writes OverallResult, Result and Outcome."""

    def default(self, o):
        if isinstance(o, (OverallResult, Result)):
            return o.to_dict()
        if isinstance(o, Outcome):
            return o.name
        return super().default(o)
