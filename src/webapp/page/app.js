// The Mini App page script.
