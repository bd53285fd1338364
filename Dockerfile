FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml ./
RUN pip install --no-cache-dir .
COPY . .
# Production storage (DEBUG=0): hashed, compressed files and the manifest WhiteNoise serves from.
RUN DEBUG=0 SECRET_KEY=collectstatic-only ALLOWED_HOSTS=localhost python manage.py collectstatic --noinput -v0
EXPOSE 8000
CMD ["python", "-m", "config.serve"]
