print("tour: being written")
