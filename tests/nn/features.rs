//! The V7 input features (to come).
