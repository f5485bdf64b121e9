// StateGraphMacrosTests: placeholder
