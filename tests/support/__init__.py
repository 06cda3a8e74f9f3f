"""Test support, one meaning per name: `results` reads tool results, `mocks` helps with mocked Gitea answers,
`gitea_json` builds Gitea's JSON as a real server sends it (checked against its OpenAPI spec)."""

TOKEN = "tok-SECRET-0123456789abcdef"  # the token every unit test uses; the suite checks it never leaks
