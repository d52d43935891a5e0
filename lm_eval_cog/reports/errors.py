"""The one error type of the report tools: input that is not an lm-eval output we can read."""


class ReportInputError(ValueError):
    """A results/samples file is missing, corrupt or not lm-eval's; the message names it."""
