"""The only place that knows lm-eval internals: task class, request seam, reference-agent model."""
