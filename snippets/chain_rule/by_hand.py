# The same derivative, multiplied out by hand, to check autograd against.
x = 2.0

u = 3 * x + 4
dy_du = 2 * u  # derivative of u² with respect to u
du_dx = 3      # derivative of 3x + 4 with respect to x

print("u     =", u)
print("dy/du =", dy_du)
print("du/dx =", du_dx)
print("dy/dx =", dy_du * du_dx)
