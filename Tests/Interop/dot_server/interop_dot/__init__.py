"""Minimal Django project running django-oauth-toolkit for AuthFlow interop tests."""
