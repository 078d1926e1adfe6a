//! Business rules of integrations (provider connections).
