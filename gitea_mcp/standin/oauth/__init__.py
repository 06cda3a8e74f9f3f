"""Gitea's OAuth2 provider in the stand-in: `model` (applications, grants, codes, sessions, tokens and their
rules) and `web` (the pages and endpoints outside /api/v1: sign-in, authorize, consent, token, keys, userinfo,
discovery). The API's own part, registering an application, is endpoints/oauth2.py.
"""
