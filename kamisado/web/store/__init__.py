"""The database: one code path per driver, the tables, the store's calls, the calls processes share, the migrations, backups."""
