import Domino
print("demo")
