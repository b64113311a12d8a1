print("cardinald")
