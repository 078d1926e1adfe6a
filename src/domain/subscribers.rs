//! Business rules of subscribers, their channel credentials and preferences.
