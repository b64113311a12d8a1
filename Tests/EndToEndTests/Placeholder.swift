// Placeholder until the tests land; delete when adding real tests.
