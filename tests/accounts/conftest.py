"""Account service tests run on both database backends (the store's fixtures)."""

from tests.store import conftest as store_fixtures

pg_url = store_fixtures.pg_url
sqlite_template = store_fixtures.sqlite_template
db_url = store_fixtures.db_url
db = store_fixtures.db
