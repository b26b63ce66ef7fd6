"""Tests of the gluon.nn layers."""
