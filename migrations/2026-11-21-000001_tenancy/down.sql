DROP TABLE api_keys;
DROP TABLE environments;
DROP TABLE organizations;
