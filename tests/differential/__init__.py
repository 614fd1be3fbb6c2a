"""Differential tests against trec_eval 10.0 through every door."""
