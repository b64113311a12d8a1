print("cardinal")
