// StateGraphTests: placeholder
