//! gogui-regress style regression runner (to be written)
